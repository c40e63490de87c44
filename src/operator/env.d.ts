/** A secret, so not in wrangler.toml's [vars] (whose types are generated): declared here. */
export {};

declare global {
  interface Env {
    /** The operator API's secret (`wrangler secret put OPERATOR_SECRET`; `npm run dev` sets one). Unset: no operator API. */
    OPERATOR_SECRET?: string;
  }
  namespace Cloudflare {
    interface Env {
      OPERATOR_SECRET?: string;
    }
  }
}
