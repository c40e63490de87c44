import { Page } from "../components/ui";
export function Candidates() {
  return <Page title="Candidates"><p>To do.</p></Page>;
}
