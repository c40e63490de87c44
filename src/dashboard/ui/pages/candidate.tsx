import { Page } from "../components/ui";
export function CandidatePage() {
  return <Page title="CandidatePage"><p>To do.</p></Page>;
}
