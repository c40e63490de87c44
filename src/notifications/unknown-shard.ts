/**
 * A queue message naming no shard of this Worker's can never succeed: retrying it would only hold
 * its place until the dead-letter queue. It is logged and acknowledged, so its batch goes on.
 */
import { UnknownShardError } from "../shards";

/** Acknowledges `message` if `error` is its unknown shard; false for any other failure. */
export function dropUnknownShard(message: Message<unknown>, error: unknown): boolean {
  if (!(error instanceof UnknownShardError)) return false;
  console.error(`queue message ${message.id} dropped: ${error.message}`, message.body);
  message.ack();
  return true;
}
