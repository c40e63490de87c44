/** Worker entry: the HTTP app and the Durable Object class the runtime binds as CANDIDATES. */
import { createApp } from "./app";

export { CandidateObject } from "./candidate/object";

export default createApp() satisfies ExportedHandler<Env>;
