import { render } from "preact";
import { App } from "./app";
import "./style.css";

// An address typed by hand may not decode (`%E0`): the router would throw on it; it is a page not found.
try {
  decodeURIComponent(location.pathname);
} catch {
  history.replaceState(null, "", "/dashboard/not-found");
}

render(<App />, document.getElementById("app")!);
