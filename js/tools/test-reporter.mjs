// `npm test`'s reporter: node's dot reporter (a dot a passing test, every failure in
// full at the end), then the run's closing counts as the TAP reporter writes them
// (`# tests N`, `# pass N`, `# fail N`, ...), which CI reads.
import { dot } from "node:test/reporters";

const COUNTS = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) /;

export default async function* reporter(source) {
  const counts = [];
  async function* noting(events) {
    for await (const event of events) {
      const { type, data } = event;
      if (type === "test:diagnostic" && data.nesting === 0 && COUNTS.test(data.message)) {
        counts.push(data.message);
      }
      yield event;
    }
  }
  yield* dot(noting(source));
  for (const line of counts) yield `# ${line}\n`;
}
