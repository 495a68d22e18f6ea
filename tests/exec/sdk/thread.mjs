// Runs a thread and a resumed turn through OpenAI's TypeScript SDK, with the codex executable
// given in CODEX_BIN; prints what the SDK returned as one JSON object.
import { pathToFileURL } from "node:url";
import path from "node:path";

const entry = path.join(process.env.SDK_DIR, "node_modules/@openai/codex-sdk/dist/index.js");
const { Codex } = await import(pathToFileURL(entry).href);

const codex = new Codex({ codexPathOverride: process.env.CODEX_BIN, env: { ...process.env } });
const options = { workingDirectory: process.env.WORKSPACE, skipGitRepoCheck: true };
const thread = codex.startThread(options);
const first = await thread.run("first question");
const resumed = codex.resumeThread(thread.id, options);
const second = await resumed.run("second question");
console.log(
  JSON.stringify({
    threadId: thread.id,
    resumedId: resumed.id,
    first: first.finalResponse,
    second: second.finalResponse,
    items: second.items.map((item) => item.type),
    usage: second.usage,
  }),
);
