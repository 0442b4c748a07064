import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { bundledPackages, collectLicenses, licenseFileText, packageDirOf } from "../tools/licenses.mjs";

const root = mkdtempSync(join(tmpdir(), "licenses-"));
after(() => rmSync(root, { recursive: true, force: true }));

function fakePackage(name, license, files = {}) {
  const dir = join(root, "node_modules", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "1.2.3", license }));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

test("the packages come from the metafile's inputs, scoped and nested ones too", () => {
  assert.equal(packageDirOf("node_modules/@scope/pkg/dist/a.mjs"), join("node_modules", "@scope", "pkg"));
  assert.equal(packageDirOf("node_modules/a/node_modules/b/index.js"), join("node_modules", "a", "node_modules", "b"));
  assert.equal(packageDirOf("src/worker.js"), null);
  const dir = fakePackage("@scope/pkg", "MIT", { LICENSE: "MIT text" });
  const metafile = { outputs: { "out/a.js": { inputs: { "src/a.js": {}, "node_modules/@scope/pkg/x.js": {} } } } };
  assert.deepEqual([...bundledPackages([metafile], root)], [[dir, new Set(["a.js"])]]);
});

test("a package's own licence and NOTICE files are shipped, with a header naming it", () => {
  const dir = fakePackage("own", "Apache-2.0", { "LICENSE.md": "\n\n   Apache text\n", NOTICE: "Notice text" });
  const [entry] = collectLicenses(new Map([[dir, new Set(["b.js"])]]), join(root, "none"));
  assert.equal(entry.source, "the package's own LICENSE.md");
  const text = licenseFileText(entry);
  assert.match(text, /^own 1\.2\.3\nLicense: Apache-2\.0\nShipped in: b\.js\n/);
  assert.match(text, /\n   Apache text\n/); // the text's indent is kept
  assert.match(text, /NOTICE\n\nNotice text\n$/);
});

test("a package with no licence file needs a fallback for the licence it declares", () => {
  const dir = fakePackage("bare", "ISC");
  const fallbacks = join(root, "fallbacks");
  mkdirSync(fallbacks, { recursive: true });
  const packages = new Map([[dir, new Set(["c.js"])]]);
  assert.throws(() => collectLicenses(packages, fallbacks),
    /bare 1\.2\.3 \(ISC\) is bundled into c\.js but ships no licence file: add its licence text as js\/licenses\/bare\.txt, with a "# License: ISC" header line/);
  writeFileSync(join(fallbacks, "bare.txt"), "# why\n# License: MIT\nMIT text\n");
  assert.throws(() => collectLicenses(packages, fallbacks), /holds the MIT text, but bare 1\.2\.3 declares ISC/);
  writeFileSync(join(fallbacks, "bare.txt"), "# why\n# License: ISC\nISC text\n");
  const [entry] = collectLicenses(packages, fallbacks);
  assert.equal(entry.text, "ISC text\n");
  assert.match(entry.source, /js\/licenses\/bare\.txt \(the package ships no licence file\)/);
});
