// snowball-stemmers ships every language's stemmer in one UMD module that exports only
// newStemmer(name), so a bundler cannot drop the unused ones. This esbuild plugin
// removes, at build time, each stemmer class but Porter's from the package's own source
// (their classes become null in newStemmer's table), and checks the result: the
// trimmed module must stem `words` exactly as the whole package does, or the build fails.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const CLASS = /^ {4}var (\w+)Stemmer = function \(_SnowballStemmer\d*\) \{$/;
const END = /^ {4}function newStemmer\(/;

/** The package's source with every stemmer class but `keep`'s replaced by null. */
export function trimStemmers(source, keep = "porter") {
  const out = [];
  let dropping = false;
  let found = 0;
  for (const line of source.split("\n")) {
    const start = CLASS.exec(line);
    if (start) {
      found++;
      dropping = start[1] !== keep;
      if (dropping) out.push(`    var ${start[1]}Stemmer = null;`);
    } else if (END.test(line)) {
      dropping = false;
    }
    if (!dropping) out.push(line);
  }
  if (found < 2 || !out.some((line) => CLASS.exec(line)?.[1] === keep)) {
    throw new Error(`snowball-stemmers no longer has the layout trimStemmers expects (found ${found} stemmers)`);
  }
  return out.join("\n");
}

function loadUmd(source) {
  const exports = {};
  new Function("exports", "define", source).call(globalThis, exports, undefined);
  return exports;
}

/** esbuild plugin: snowball-stemmers with Porter's stemmer only, checked on `words`. */
export function porterOnly(words) {
  return {
    name: "porter-only",
    setup(build) {
      build.onLoad({ filter: /snowball-stemmers[\\/]snowball-stemmers\.js$/ }, ({ path }) => {
        const source = readFileSync(path, "utf8");
        const trimmed = trimStemmers(source);
        const whole = createRequire(import.meta.url)(path).newStemmer("porter");
        const porter = loadUmd(trimmed).newStemmer("porter");
        const differ = words.filter((w) => porter.stem(w) !== whole.stem(w));
        if (differ.length) throw new Error(`the trimmed Porter stemmer differs on ${differ.slice(0, 5).join(", ")}`);
        return { contents: trimmed, loader: "js" };
      });
    },
  };
}
