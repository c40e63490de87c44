import { Page } from "../components/ui";
export function Overview() {
  return <Page title="Overview"><p>To do.</p></Page>;
}
