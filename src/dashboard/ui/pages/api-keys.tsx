import { Page } from "../components/ui";
export function ApiKeys() {
  return <Page title="ApiKeys"><p>To do.</p></Page>;
}
