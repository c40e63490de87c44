/**
 * One candidate, as GET /v1/candidates/{alias} answers it: its facts, its timeline as a picture,
 * its events, its notifications and their deliveries; and what can be done to it (metadata,
 * confirm or void). After any change the candidate is read again, so the page shows the API's word.
 */
import { useRef, useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, CandidateContractError, ok } from "../api";
import { useLoad } from "../load";
import { useCan } from "../session";
import { ErrorNote, Loading } from "../components/notes";
import { Page } from "../components/page";
import { StatusBadge, Time } from "../components/values";
import { BASE } from "../paths";
import { Timeline } from "./candidate/timeline";
import { EventsTable, Facts } from "./candidate/facts";
import { MetadataEditor } from "./candidate/metadata-editor";
import { Resolve } from "./candidate/resolve";
import { Notifications } from "./candidate/notifications";
import { SendEvent } from "./forms/send-event";

export function CandidatePage() {
  const { params } = useRoute();
  const alias = params.alias ?? "";
  const can = useCan();
  const [version, setVersion] = useState(0);
  const loaded = useLoad(async () => {
    const candidate = await ok(
      api.GET("/v1/candidates/{candidate_alias}", { params: { path: { candidate_alias: alias } } }),
    );
    // The instant the answer arrived: the timeline's "now", near the instant the status is exact at.
    return { candidate, readAt: Date.now() };
  }, [alias, version]);
  const reload = () => setVersion((v) => v + 1);
  // The metadata form is made anew from what the API answers after a save (its key is the
  // metadata), so the focus goes to the panel's heading and a status says it was saved.
  const [metadataSavedAt, setMetadataSavedAt] = useState<string | null>(null);
  const metadataHeading = useRef<HTMLHeadingElement>(null);

  if (!can("candidates:read")) {
    return (
      <Page title="Candidate">
        <p>This session lacks candidates:read, which reading a candidate needs.</p>
      </Page>
    );
  }
  if (loaded.error instanceof CandidateContractError && loaded.error.code === "CANDIDATE_NOT_FOUND") {
    return (
      <Page title="Candidate not found">
        <p>
          No candidate with the alias <code>{alias}</code> in this account.{" "}
          <a href={`${BASE}/candidates`}>Back to the candidates</a>
        </p>
      </Page>
    );
  }
  if (!loaded.data) {
    return (
      <Page title={alias}>
        {loaded.error ? <ErrorNote error={loaded.error} /> : <Loading />}
        <p>
          <a href={`${BASE}/candidates`}>Back to the candidates</a>
        </p>
      </Page>
    );
  }
  const { candidate, readAt } = loaded.data;
  return (
    <Page
      title={candidate.candidate_alias}
      actions={
        <>
          <StatusBadge status={candidate.status} />
          {/* Read once: a boundary passing later shows after Reload. */}
          <span class="muted">
            as of <Time iso={new Date(readAt).toISOString()} />
          </span>
          <button
            type="button"
            class="secondary"
            onClick={() => !loaded.loading && reload()}
            aria-disabled={loaded.loading || undefined}
          >
            {loaded.loading ? "Reloading…" : "Reload"}
          </button>
        </>
      }
    >
      <p>
        <a href={`${BASE}/candidates`}>← Candidates</a>
      </p>
      <ErrorNote error={loaded.error} />
      <section class="panel" aria-labelledby="h-timeline">
        <h2 id="h-timeline">Timeline</h2>
        <Timeline candidate={candidate} now={readAt} />
      </section>
      <div class="cand-grid">
        <section class="panel" aria-labelledby="h-facts">
          <h2 id="h-facts">Facts</h2>
          <Facts candidate={candidate} />
        </section>
        <div>
          {can("events:write") && <SendEvent alias={candidate.candidate_alias} onSent={reload} />}
          <section class="panel" aria-labelledby="h-resolve">
            <h2 id="h-resolve">Confirm or void</h2>
            <Resolve
              alias={candidate.candidate_alias}
              status={candidate.status}
              canWrite={can("candidates:write")}
              onAnswered={reload}
            />
          </section>
          <section class="panel" aria-labelledby="h-metadata">
            <h2 id="h-metadata" tabIndex={-1} ref={metadataHeading}>
              Metadata
            </h2>
            {metadataSavedAt && (
              <p role="status" class="muted">
                Saved at <Time iso={metadataSavedAt} />.
              </p>
            )}
            <MetadataEditor
              key={JSON.stringify(candidate.metadata)}
              alias={candidate.candidate_alias}
              metadata={candidate.metadata}
              canWrite={can("candidates:write")}
              onSaved={() => {
                setMetadataSavedAt(new Date().toISOString());
                metadataHeading.current?.focus();
                reload();
              }}
            />
          </section>
        </div>
      </div>
      <h2>Events</h2>
      <EventsTable candidate={candidate} />
      <h2>Notifications and deliveries</h2>
      <Notifications alias={candidate.candidate_alias} version={version} />
    </Page>
  );
}
