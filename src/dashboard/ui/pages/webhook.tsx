import { Page } from "../components/ui";
export function WebhookPage() {
  return <Page title="WebhookPage"><p>To do.</p></Page>;
}
