/** The Hono environment shared by the app, its middleware and its routes. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    accountId: string;
    requestId: string;
  };
}
