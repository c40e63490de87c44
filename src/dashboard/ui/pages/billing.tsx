import { Page } from "../components/ui";
export function Billing() {
  return <Page title="Billing"><p>To do.</p></Page>;
}
