;; The forward pass's matrix product in WebAssembly SIMD (bert.js): y = x W for x
;; [n, in] and W [in, out] float32, out a multiple of 16: a row of W at a time, added into
;; every token's row of y. Compiled by js/tools/dense-wasm.mjs into dense-wasm.js;
;; bert.js multiplies in JavaScript where the browser lacks SIMD.
(module
  (memory (export "memory") 1)
  (func (export "matmul")
    (param $x i32) (param $n i32) (param $in i32) (param $out i32) (param $w i32) (param $y i32)
    (local $t i32) (local $i i32) (local $j i32) (local $yend i32)
    (local $wrow i32) (local $xv v128) (local $b i32) (local $p i32)
    ;; y zeroed
    (local.set $p (local.get $y))
    (local.set $yend (i32.add (local.get $y)
      (i32.shl (i32.mul (local.get $n) (local.get $out)) (i32.const 2))))
    (block $zero_done
      (loop $zero
        (br_if $zero_done (i32.ge_u (local.get $p) (local.get $yend)))
        (v128.store (local.get $p) (v128.const i32x4 0 0 0 0))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $zero)))
    ;; a row of W at a time, added into every token's row of y while it is in cache
    (local.set $i (i32.const 0))
    (block $inputs_done
      (loop $inputs
        (br_if $inputs_done (i32.ge_u (local.get $i) (local.get $in)))
        (local.set $wrow (i32.add (local.get $w) (i32.shl (i32.mul (local.get $i) (local.get $out)) (i32.const 2))))
        (local.set $t (i32.const 0))
        (block $tokens_done
          (loop $tokens
            (br_if $tokens_done (i32.ge_u (local.get $t) (local.get $n)))
            (local.set $xv (f32x4.splat (f32.load (i32.add (local.get $x)
              (i32.shl (i32.add (i32.mul (local.get $t) (local.get $in)) (local.get $i))
                       (i32.const 2))))))
            (local.set $p (i32.add (local.get $y)
              (i32.shl (i32.mul (local.get $t) (local.get $out)) (i32.const 2))))
            (local.set $j (i32.const 0))
            (block $outputs_done
              (loop $outputs
                (br_if $outputs_done (i32.ge_u (local.get $j) (local.get $out)))
                ;; sixteen float32 weights
                (local.set $b (i32.add (local.get $wrow) (i32.shl (local.get $j) (i32.const 2))))
                (v128.store (local.get $p) (f32x4.add (v128.load (local.get $p))
                  (f32x4.mul (local.get $xv) (v128.load (local.get $b)))))
                (v128.store offset=16 (local.get $p) (f32x4.add (v128.load offset=16 (local.get $p))
                  (f32x4.mul (local.get $xv) (v128.load offset=16 (local.get $b)))))
                (v128.store offset=32 (local.get $p) (f32x4.add (v128.load offset=32 (local.get $p))
                  (f32x4.mul (local.get $xv) (v128.load offset=32 (local.get $b)))))
                (v128.store offset=48 (local.get $p) (f32x4.add (v128.load offset=48 (local.get $p))
                  (f32x4.mul (local.get $xv) (v128.load offset=48 (local.get $b)))))
                (local.set $p (i32.add (local.get $p) (i32.const 64)))
                (local.set $j (i32.add (local.get $j) (i32.const 16)))
                (br $outputs)))
            (local.set $t (i32.add (local.get $t) (i32.const 1)))
            (br $tokens)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $inputs)))))
