import { Page } from "../components/ui";
export function Schemas() {
  return <Page title="Schemas"><p>To do.</p></Page>;
}
