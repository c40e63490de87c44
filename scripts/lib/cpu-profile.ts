/**
 * CPU profiles of a worker served by Miniflare, through workerd's inspector (the Chrome DevTools
 * protocol). The worker's Durable Objects run in its isolate, so their work is in the profile too.
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface Profile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** Starts profiling the worker `name` on the inspector at `port`; `stop` returns the profile. */
export async function startCpuProfile(port: number, name: string): Promise<{ stop: () => Promise<Profile> }> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    title: string;
    webSocketDebuggerUrl: string;
  }[];
  const target = targets.find((t) => t.title.endsWith(`core:user:${name}`));
  if (!target) throw new Error(`no inspector target for worker ${name}: ${targets.map((t) => t.title).join(", ")}`);
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve);
    socket.addEventListener("error", reject);
  });
  const waiting = new Map<number, (result: any) => void>();
  socket.addEventListener("message", (message) => {
    const data = JSON.parse(String(message.data));
    waiting.get(data.id)?.(data.result);
    waiting.delete(data.id);
  });
  let lastId = 0;
  const send = (method: string, params = {}) =>
    new Promise<any>((resolve) => {
      const id = ++lastId;
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 200 }); // microseconds
  await send("Profiler.start");
  return {
    async stop() {
      const { profile } = await send("Profiler.stop");
      socket.close();
      return profile as Profile;
    },
  };
}

/** The functions that took the most CPU themselves, as shares of the time the isolate was busy. */
export function topSelfTime(profile: Profile, count: number): { share: number; frame: string }[] {
  // Samples are counted, not their time deltas: a sample after a pause of the profiled isolate
  // (another worker's round) carries that whole pause, and one such sample would outweigh the rest.
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFrame = new Map<string, number>();
  let total = 0;
  for (const id of profile.samples) {
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    if (functionName === "(idle)") continue;
    const frame = `${functionName || "(anonymous)"} ${url.split("/").pop()}:${lineNumber + 1}`;
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + 1);
    total++;
  }
  return [...byFrame]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([frame, samples]) => ({ share: samples / total, frame }));
}
