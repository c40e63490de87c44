/** What test/global-setup.ts (Node) provides to the tests (workerd), via vitest's inject(). */
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the webhook receiver the global setup starts. */
    webhookReceiver: string;
  }
}
