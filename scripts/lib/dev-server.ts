/**
 * `npm run dev` as a test harness runs it (the smoke run, the reference's browser test): started
 * on a port of its own, its token read off its output, stopped as a process manager would.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export class DevServer {
  readonly port = 8700 + Math.floor(Math.random() * 80);
  readonly url = `http://127.0.0.1:${this.port}`;
  private child: ChildProcess | undefined;
  /** Everything it printed since it was last started. */
  output = "";
  /** The dashboard sign-in link it printed at its last start. */
  signInUrl = "";

  get running() {
    return this.child !== undefined;
  }

  /** Starts it (no process group of its own) and waits until it serves and prints its banner; its development token. */
  async start(): Promise<string> {
    const child = spawn("npm", ["run", "dev", "--", "--port", String(this.port), "--ip", "127.0.0.1"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.output = "";
    child.stdout!.on("data", (d) => (this.output += d));
    child.stderr!.on("data", (d) => (this.output += d));
    const deadline = Date.now() + 90_000;
    while (!/export TOKEN=cct_\S+\n/.test(this.output)) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`npm run dev did not start:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    this.child = child;
    this.signInUrl = this.output.match(/sign in +(http\S+)/)![1];
    return this.output.match(/export TOKEN=(cct_\S+)/)![1];
  }

  /** One signal to the pid it started, as a process manager sends; waits for it to exit. */
  async stop(signal: NodeJS.Signals = "SIGTERM") {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill(signal);
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  }

  /** Processes still serving its port: wrangler and workerd name it on their command lines. */
  async leftovers(): Promise<string[]> {
    const { stdout } = await run("ps", ["-eo", "pid,args"]);
    return stdout
      .split("\n")
      .filter((line) => line.includes(`--port ${this.port}`) || line.includes(`127.0.0.1:${this.port}`));
  }

  /** Stops it, and kills whatever it left (after a failed test). */
  async cleanUp() {
    await this.stop();
    for (const line of await this.leftovers()) process.kill(Number(line.trim().split(/\s+/)[0]), "SIGKILL");
  }
}
