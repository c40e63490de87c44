/** Runs in Node before the tests: a real webhook receiver the Worker under test delivers to. */
import type { TestProject } from "vitest/node";
import { startReceiver } from "../scripts/lib/webhook-receiver.ts";

export default async function setup(project: TestProject) {
  const receiver = await startReceiver();
  project.provide("webhookReceiver", receiver.url);
  return () => receiver.close();
}
