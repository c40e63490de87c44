/**
 * The candidate's metadata, editable: change a value, add a key, remove one. Saving sends only the
 * changes (PATCH merges; a removed key is sent as ""), and the API's objections appear at the key.
 */
import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { api } from "../../api";
import { described, Field } from "../../components/fields";
import { useCall } from "../../components/use-call";
import { FormError, localError } from "../shared/form-error";
import { escapedControls } from "../../components/bidi";

/** The path of the new key's own problems (found here), apart from its value's (the API's, at `metadata.KEY`). */
const NEW_KEY = "new_key";
/** The API's longest metadata key, in characters. */
const MAX_KEY_CHARACTERS = 40;

interface Props {
  alias: string;
  metadata: Record<string, string>;
  canWrite: boolean;
  onSaved: () => void;
}

export function MetadataEditor({ alias, metadata, canWrite, onSaved }: Props) {
  const keys = Object.keys(metadata).sort();
  const [draft, setDraft] = useState<Record<string, string>>(metadata);
  const [removed, setRemoved] = useState<string[]>([]);
  const [added, setAdded] = useState<{ key: string; value: string }>({ key: "", value: "" });
  const { busy, error, setError, run } = useCall();

  if (!canWrite) {
    return keys.length === 0 ? (
      <p class="muted">No metadata.</p>
    ) : (
      <dl class="facts">
        {keys.map((key) => [
          <dt key={`k-${key}`} class="mono">
            {key}
          </dt>,
          <dd key={`v-${key}`}>{metadata[key]}</dd>,
        ])}
      </dl>
    );
  }

  // No prototype: a key named __proto__ (the API takes it) is a key here too, not the object's prototype.
  const changes = Object.create(null) as Record<string, string>;
  for (const key of keys) {
    if (removed.includes(key)) changes[key] = "";
    else if (draft[key] !== metadata[key]) changes[key] = draft[key];
  }
  if (added.key !== "" || added.value !== "") changes[added.key] = added.value;
  const pending = Object.keys(changes).length > 0;

  /**
   * What is wrong with the new key as typed, before anything is sent (a key sent as "" is removed),
   * the API's rules for a key included: so what the API refuses at the new key's path is its value.
   */
  const newKeyProblem =
    added.key === "" && added.value !== ""
      ? "needs a name"
      : Object.hasOwn(metadata, added.key)
        ? "is a key already: change its value in its own row"
        : [...added.key].length > MAX_KEY_CHARACTERS
          ? `is a key of ${[...added.key].length} characters; a key must be 1 to ${MAX_KEY_CHARACTERS}`
          : /[[\]]/.test(added.key)
            ? "is a key with [ or ] in it; a key must not contain them"
            : added.key !== "" && added.value === ""
              ? "needs a value (a key set to nothing is removed)"
              : null;

  /** Any edit: an objection to what was there before goes with it (the next save is judged anew). */
  const edit = (change: () => void) => {
    change();
    setError(null);
  };
  const editAdded = (change: Partial<typeof added>) => edit(() => setAdded({ ...added, ...change }));

  const save = (e: Event) => {
    e.preventDefault();
    if (newKeyProblem) return setError(localError(NEW_KEY, newKeyProblem));
    return run(
      async () => {
        await api.PATCH("/v1/candidates/{candidate_alias}", {
          params: { path: { candidate_alias: alias } },
          body: { metadata: changes },
        });
        onSaved();
      },
      { exclusive: true },
    );
  };

  return (
    <form onSubmit={save} class="meta-editor">
      {keys.length === 0 && <p class="muted">No metadata yet: add a key below.</p>}
      {keys.map((key, i) => {
        const id = `meta-${i}`;
        const gone = removed.includes(key);
        return (
          <div class="row" key={key}>
            <Field
              id={id}
              label={
                <>
                  <bdi>{escapedControls(key)}</bdi>
                  {gone && " (removed on save)"}
                </>
              }
              error={error}
              path={`metadata.${key}`}
            >
              <input
                {...described(id, error, `metadata.${key}`)}
                value={draft[key]}
                disabled={gone}
                onInput={(e) => edit(() => setDraft({ ...draft, [key]: e.currentTarget.value }))}
              />
            </Field>
            <button
              type="button"
              class="secondary field-button"
              onClick={() => edit(() => setRemoved(gone ? removed.filter((k) => k !== key) : [...removed, key]))}
            >
              {/* <bdi> isolates the key as FSI … PDI would, but adds no characters to the button's name. */}
              {gone ? "Keep " : "Remove "}
              <bdi>{escapedControls(key)}</bdi>
            </button>
          </div>
        );
      })}
      <div class="row">
        <Field id="meta-new-key" label="New key" error={error} path={NEW_KEY}>
          <input
            {...described("meta-new-key", error, NEW_KEY)}
            value={added.key}
            spellcheck={false}
            onInput={(e) => editAdded({ key: e.currentTarget.value })}
          />
        </Field>
        <Field id="meta-new-value" label="Its value" error={error} path={`metadata.${added.key}`}>
          <input
            {...described("meta-new-value", error, `metadata.${added.key}`)}
            value={added.value}
            onInput={(e) => editAdded({ value: e.currentTarget.value })}
          />
        </Field>
      </div>
      <FormError error={error} paths={[NEW_KEY, ...[...keys, added.key].map((key) => `metadata.${key}`)]} />
      <button type="submit" disabled={!pending} aria-disabled={busy || undefined}>
        {busy ? "Saving…" : "Save metadata"}
      </button>{" "}
      {pending && (
        <span class="muted">
          Changes:{" "}
          {Object.keys(changes).map((k, i) => (
            <Fragment key={k}>
              {i > 0 && ", "}
              {k === added.key ? "add " : changes[k] === "" ? "remove " : "set "}
              {k ? <bdi>{escapedControls(k)}</bdi> : "a key"}
            </Fragment>
          ))}
        </span>
      )}
    </form>
  );
}
