/**
 * A button that downloads the CSV export (GET /v1/candidates/export) once the API has answered. A
 * download cannot send the `Dashboard-Account` header every other call carries (api.ts), so a tab
 * left showing one account would download another's, signed in since in another tab. The same
 * filters go first to the list (one candidate) through the client: that call names the account,
 * so a tab left behind goes to sign-in as on any call, and refused filters are said here; then the
 * browser downloads the export itself, streamed. A button, not a link: a link's middle-click or
 * "Save link as" would fetch the export without asking.
 */
import type { ComponentChildren } from "preact";
import { api, ok } from "../../api";
import { ErrorNote } from "../../components/notes";
import { useCall } from "../../components/use-call";
import { exportHref, type ListQuery } from "./filters";

export function ExportButton({
  query,
  file,
  class: className,
  children,
}: {
  /** The list's query for the export's filters (`apiQuery`). */
  query: Omit<ListQuery, "after" | "limit">;
  file?: string;
  class?: string;
  children: ComponentChildren;
}) {
  const { busy, error, run } = useCall();
  const download = () =>
    void run(
      async () => {
        await ok(api.GET("/v1/candidates", { params: { query: { ...query, limit: 1 } } }));
        const link = document.createElement("a");
        link.href = exportHref(query);
        link.download = file ?? "";
        link.hidden = true;
        document.body.append(link);
        link.click();
        link.remove();
      },
      { exclusive: true }, // the button stays focusable while it asks (aria-disabled)
    );
  return (
    <>
      <button type="button" class={className} onClick={download} aria-disabled={busy || undefined}>
        {children}
      </button>
      <ErrorNote error={error} />
    </>
  );
}
