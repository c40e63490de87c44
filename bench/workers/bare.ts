/** Bench "bare": the runtime's own limit. A Hono app answering a small JSON 200, no storage. */
import { Hono } from "hono";

const app = new Hono();
app.all("*", (c) => c.json({ ok: true }));

export default app;
