import { Page } from "../components/ui";
export function Webhooks() {
  return <Page title="Webhooks"><p>To do.</p></Page>;
}
