import { Page } from "../components/ui";
export function Notifications() {
  return <Page title="Notifications"><p>To do.</p></Page>;
}
