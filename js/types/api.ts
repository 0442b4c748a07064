// The client's API held to its declaration file, src/api/semantic.d.ts, by the type
// check (tsconfig.json, run by npm test). semantic.js gives each of its functions the
// declared type; here the SemanticSearch class of client.js must have every member the
// declaration names, of a type the declaration accepts. (test/api.test.js checks that
// semantic.js exports what the declaration names, and nothing else.)

import type * as Declared from "../src/api/semantic.js";
import type { SemanticSearch } from "../src/api/client.js";

type Implements<Code extends Declaration, Declaration> = Code;

export type Client = Implements<typeof SemanticSearch, typeof Declared.SemanticSearch>;
