// A changed copy of a fixture bundle for the engine's tests, written as a writer would
// write it: an edited catalog gets its own hashed name and the manifest names it.

import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A copy of the bundle at `source` in a new temporary folder (the caller removes it),
 * changed by `edit(dir, manifest, catalog)`; when `edit` returns "catalog" the edited
 * catalog is re-signed, so that only its contents are wrong. Returns `{dir, catalog}`.
 */
export function editedCopy(source, edit = () => {}) {
  const dir = mkdtempSync(join(tmpdir(), "semantic-bundle-"));
  cpSync(source, dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  const catalog = JSON.parse(readFileSync(join(dir, manifest.catalog.name), "utf8"));
  if (edit(dir, manifest, catalog) === "catalog") {
    unlinkSync(join(dir, manifest.catalog.name));
    const data = Buffer.from(JSON.stringify(catalog));
    const sha256 = createHash("sha256").update(data).digest("hex");
    manifest.catalog = { name: `catalog.${sha256.slice(0, 16)}.json`, bytes: data.length, sha256 };
    writeFileSync(join(dir, manifest.catalog.name), data);
  }
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
  return { dir, catalog };
}

/**
 * A copy of the partitioned bundle at `source` whose queries probe at least `rows` rows
 * (its catalog's `probe_rows`), to test how the set's size compares with a probe's.
 * Returns its folder.
 */
export function probingRows(source, rows) {
  return editedCopy(source, (dir, manifest, catalog) => {
    for (const set of catalog.vectors) set.probe_rows = rows;
    return "catalog";
  }).dir;
}
