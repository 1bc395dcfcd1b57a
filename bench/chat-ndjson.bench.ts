// The chat stream parser's throughput (issue 14, target ≥ 100 MB/s in Node): a 50 MB stream made of
// a turn recorded from the stand-in (one real answer, repeated), fed to NdjsonDecoder in 64 KB
// chunks (as fetch delivers them). Also measured: the same plus zod validation of every frame
// (what the client does), and plus the conversation reducer (what the pane does per frame).
import { startPlatform } from "../dev/platform/server.ts";
import { NdjsonDecoder, type NdjsonItem } from "../src/api/chat/ndjson.ts";
import { applyFrame, EMPTY_CONVERSATION } from "../src/api/chat/conversation.ts";
import { ChatFrame } from "../src/api/chat/schemas.ts";
import { round, timeMedian, writeResult } from "./lib.ts";

const MB = 1024 * 1024;
const platform = await startPlatform({ log: () => {}, chatDeltaMs: 0 });
let recorded: Uint8Array;
try {
  const res = await fetch(
    `${platform.info.aiUrl}/api/v1/public/${platform.info.accountName}/agents/${platform.info.chat.agentId}/chat/stream-chat-state`,
    {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Api-Key ${platform.info.apiKeys.analyst}` },
      body: JSON.stringify({ input: "Umsatz — revenue by month 📈", sessionSettings: { internalId: "ana.analyst@cellbound.test" } }),
    },
  );
  recorded = new Uint8Array(await res.arrayBuffer());
} finally {
  await platform.close();
}

// 50 MB of the recording, repeated whole.
const copies = Math.ceil((50 * MB) / recorded.length);
const stream = new Uint8Array(copies * recorded.length);
for (let i = 0; i < copies; i++) stream.set(recorded, i * recorded.length);
const CHUNK = 64 * 1024;
const chunks: Uint8Array[] = [];
for (let at = 0; at < stream.length; at += CHUNK) chunks.push(stream.subarray(at, at + CHUNK));

function parse(onItem?: (i: NdjsonItem) => void): number {
  const d = new NdjsonDecoder();
  const out: NdjsonItem[] = [];
  let n = 0;
  for (const c of chunks) {
    d.push(c, out);
    n += out.length;
    if (onItem) for (const i of out) onItem(i);
    out.length = 0;
  }
  d.end(out);
  return n + out.length;
}

const lines = parse();
// 9 runs: the median is the figure; the best run is reported too (on a shared 2-core machine with a
// load of ~10, the best run is the one least slowed by other processes).
const bare = await timeMedian(() => parse(), 9, 2);
const validated = await timeMedian(
  () =>
    parse((i) => {
      if (i.ok) ChatFrame.parse(i.value);
    }),
  3,
  1,
);
// The reducer over one recorded turn's frames at a time (a conversation holds one turn's messages).
const perTurn = recorded.length;
let conv = EMPTY_CONVERSATION;
const reduced = await timeMedian(
  () =>
    parse((i) => {
      if (!i.ok) return;
      conv = applyFrame(conv, ChatFrame.parse(i.value));
      if (conv.messages.length > 8) conv = EMPTY_CONVERSATION;
    }),
  3,
  1,
);
const mbps = (ms: number) => stream.length / MB / (ms / 1000);
writeResult({
  name: "chat-ndjson-parse",
  unit: "MB/s",
  value: round(mbps(bare.median)),
  baseline: 100,
  ratio: mbps(bare.median) / 100,
  details: {
    streamMB: round(stream.length / MB),
    lines,
    chunkKB: CHUNK / 1024,
    recordedTurnBytes: perTurn,
    parseMedianMs: round(bare.median),
    bestRunMBps: round(mbps(bare.min)),
    loadAverage: (await import("node:os")).loadavg().map((x) => round(x)),
    withZodMBps: round(mbps(validated.median)),
    withZodAndReducerMBps: round(mbps(reduced.median)),
  },
});
