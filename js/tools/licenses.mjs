// The licence texts of everything third-party the client ships, gathered at build time.
// The npm packages come from esbuild's metafile (every package one of its inputs lies in)
// plus the files the build copies out of a package; each one's text is its own licence
// file in node_modules, or, for a package that ships none, js/licenses/<package>.txt,
// whose `# License:` line must match the licence the package declares. A bundled package
// with neither fails the build, naming the package and the file to add.

import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { basename, join, sep } from "node:path";

const LICENSE_FILE = /^(licen[cs]e|copying)([.-].*)?$/i;
const NOTICE_FILE = /^notice([.-].*)?$/i;

/** `node_modules/<name>` (or `<@scope/name>`) that `path` lies in, or null. */
export function packageDirOf(path) {
  const parts = path.split(/[\\/]/);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0 || at + 1 >= parts.length) return null;
  const length = parts[at + 1].startsWith("@") ? 2 : 1;
  return parts.slice(0, at + 1 + length).join(sep);
}

/** Every package the metafiles' inputs come from: its real path -> names of the outputs. */
export function bundledPackages(metafiles, root) {
  const found = new Map();
  for (const metafile of metafiles) {
    for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
      for (const input of Object.keys(inputs)) {
        const dir = packageDirOf(input);
        if (dir === null) continue;
        const key = realpathSync(join(root, dir));
        if (!found.has(key)) found.set(key, new Set());
        found.get(key).add(basename(output));
      }
    }
  }
  return found;
}

/** A component's file name, in js/licenses/ and in the client's licenses/: `@scope/name` -> `scope__name.txt`. */
export function licenseFileName(name) {
  return `${name.replace(/^@/, "").replaceAll("/", "__")}.txt`;
}

/** A fallback file: its `# ...` header lines (with `# License: <SPDX id>`) and the text. */
export function readFallback(path) {
  const lines = readFileSync(path, "utf8").split("\n");
  let start = 0;
  while (start < lines.length && lines[start].startsWith("#")) start++;
  const license = lines.slice(0, start).map((line) => /^# License: (\S+)\s*$/.exec(line)?.[1]).find(Boolean);
  if (!license) throw new Error(`${path} has no "# License: <SPDX id>" line in its header`);
  return { license, text: tidy(lines.slice(start).join("\n")) + "\n" };
}

/** `text` without leading blank lines and trailing space (a first line's indent is kept). */
function tidy(text) {
  return text.replace(/^(\s*\n)+/, "").trimEnd();
}

function filesMatching(dir, pattern) {
  return readdirSync(dir).filter((name) => pattern.test(name)).sort().map((name) => join(dir, name));
}

/**
 * One entry per package: name, version, license, the text to ship and where it came from.
 * `packages`: package dir -> what it went into (names of output files).
 */
export function collectLicenses(packages, fallbackDir) {
  const entries = [];
  for (const [dir, into] of [...packages].sort(([a], [b]) => a.localeCompare(b))) {
    const { name, version, license } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const own = filesMatching(dir, LICENSE_FILE);
    const fallback = join(fallbackDir, licenseFileName(name));
    let text, source;
    if (own.length) {
      if (existsSync(fallback)) console.warn(`${name} now ships its own licence file: js/licenses/${basename(fallback)} is unused`);
      text = own.map((path) => tidy(readFileSync(path, "utf8")) + "\n").join("\n");
      source = `the package's own ${own.map((path) => basename(path)).join(", ")}`;
    } else if (existsSync(fallback)) {
      const declared = readFallback(fallback);
      if (declared.license !== license) {
        throw new Error(`${fallback} holds the ${declared.license} text, but ${name} ${version} declares ` +
          `${license}: replace the file with the package's current licence text`);
      }
      text = declared.text;
      source = `js/licenses/${basename(fallback)} (the package ships no licence file)`;
    } else {
      throw new Error(`${name} ${version} (${license}) is bundled into ${[...into].join(", ")} but ships no ` +
        `licence file: add its licence text as js/licenses/${licenseFileName(name)}, with a ` +
        `"# License: ${license}" header line`);
    }
    const notices = filesMatching(dir, NOTICE_FILE).map((path) => tidy(readFileSync(path, "utf8")) + "\n");
    entries.push({ name, version, license, into: [...into].sort(), source, text, notices });
  }
  return entries;
}

/** The text of one licence file in the built client: a header saying what it covers, then the text. */
export function licenseFileText({ name, version, license, into, source, text, notices = [] }) {
  const header = [
    `${name}${version ? ` ${version}` : ""}`,
    `License: ${license}`,
    `Shipped in: ${into.join("; ")}`,
    `Text from: ${source}`,
  ];
  const parts = [header.join("\n"), tidy(text)];
  for (const notice of notices) parts.push(`NOTICE\n\n${tidy(notice)}`);
  return parts.join("\n\n" + "-".repeat(78) + "\n\n") + "\n";
}
