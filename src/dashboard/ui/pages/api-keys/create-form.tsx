/**
 * A new key: its name, what it may do (full access, or permissions by resource) and when it ends.
 * The session can give only permissions it holds itself, so the others are disabled here (the API
 * refuses them anyway, 403). The secret goes to the caller, which shows it once.
 */
import { useState } from "preact/hooks";
import { client, type Models } from "../../api";
import { described, Field, fieldMessages } from "../../components/fields";
import { ErrorNote } from "../../components/notes";
import { useFocusOnShow } from "../../components/page";
import { useCan, useSession, type Permission } from "../../session";
import { ALL_PERMISSIONS, levelOf, readOf, RESOURCES } from "./permissions";
import { useCall } from "../../components/use-call";

const EXPIRIES = [
  { value: "never", label: "Never" },
  { value: "holder", label: "With this session's key" },
  { value: "1", label: "In 1 day" },
  { value: "30", label: "In 30 days" },
  { value: "90", label: "In 90 days" },
  { value: "365", label: "In 1 year" },
  { value: "date", label: "On a date…" },
] as const;
type Expiry = (typeof EXPIRIES)[number]["value"];

/**
 * The instant a key made now with `expiry` ends at (a date: its first instant, UTC; "holder": when
 * the session's own key does, `limit`).
 */
function expiresAt(expiry: Expiry, date: string, limit: string | null): string | undefined {
  if (expiry === "never") return undefined;
  if (expiry === "holder") return limit ?? undefined;
  if (expiry === "date") return date ? `${date}T00:00:00.000Z` : "";
  return new Date(Date.now() + Number(expiry) * 86_400_000).toISOString();
}

/** Whether a key made now with `expiry` would outlive `limit` (the session's key's expiry), which the API refuses. */
function outlives(expiry: Expiry, limit: string | null): boolean {
  if (limit === null) return expiry === "holder"; // nothing to follow
  if (expiry === "never") return true;
  if (expiry === "holder") return false;
  // A date is bounded by the input's max, the session key's own day: none is left when that is today.
  if (expiry === "date") return firstExpiryDay() > limit.slice(0, 10);
  return Date.now() + Number(expiry) * 86_400_000 > Date.parse(limit);
}

/** The first day a key can be set to stop working as it begins: tomorrow, UTC (today's has begun). */
function firstExpiryDay() {
  return new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
}

export function CreateKeyForm({
  onCreated,
  onCancel,
}: {
  onCreated: (key: Models["ApiKeyWithSecret"]) => void;
  onCancel: () => void;
}) {
  const can = useCan();
  const heading = useFocusOnShow<HTMLHeadingElement>();
  const [name, setName] = useState("");
  const [full, setFull] = useState(false);
  const [chosen, setChosen] = useState<Permission[]>([]);
  // A session whose key expires makes keys that expire no later: the choices that would not are not offered.
  const limit = useSession().api_key?.expires_at ?? null;
  const [expiry, setExpiry] = useState<Expiry>(limit === null ? "never" : "holder");
  const [date, setDate] = useState("");
  const { busy, error, run } = useCall();
  // Holding every permission by name is not enough: only a full-access session makes a full-access key.
  const mayGiveAll = useSession().full_access;
  // A write includes its read: the read is shown checked (and fixed) and not sent twice.
  const included = (p: Permission) => chosen.some((q) => readOf(q) === p);
  const toggle = (p: Permission, on: boolean) => setChosen((c) => (on ? [...c, p] : c.filter((q) => q !== p)));
  const permissions = ALL_PERMISSIONS.filter((p) => chosen.includes(p) && !included(p));
  const permissionErrors = fieldMessages(error, "permissions");

  const submit = (e: Event) => {
    e.preventDefault();
    return run(
      async () => {
        const expires_at = expiresAt(expiry, date, limit);
        onCreated(
          await client.apiKeys.create({
            name: name.trim(),
            ...(full ? {} : { permissions }),
            ...(expires_at === undefined ? {} : { expires_at }),
          }),
        );
      },
      { leaving: true, exclusive: true },
    );
  };

  return (
    <form class="panel create-key" onSubmit={(e) => void submit(e)} aria-labelledby="create-key-title">
      <h2 id="create-key-title" class="panel-title" tabIndex={-1} ref={heading}>
        New API key
      </h2>
      <Field
        id="key-name"
        label="Name"
        hint="What the key is for, e.g. “Checkout events”. 1–100 characters."
        error={error}
        path="name"
      >
        <input
          {...described("key-name", error, "name", true)}
          value={name}
          required
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </Field>
      <fieldset
        class={`permissions${permissionErrors.length ? " invalid" : ""}`}
        aria-describedby={permissionErrors.length ? "permissions-error" : undefined}
      >
        <legend>Permissions</legend>
        <label class="full-access">
          <input
            type="checkbox"
            checked={full}
            disabled={!mayGiveAll}
            onChange={(e) => setFull(e.currentTarget.checked)}
          />
          <span>
            <strong>Full access</strong>: everything, including permissions added later.
            {!mayGiveAll && <span class="muted"> (Only a full-access session can make one.)</span>}
          </span>
        </label>
        {!full && (
          <div class="resources">
            {RESOURCES.map((resource) => (
              <fieldset key={resource.name} class="checks">
                <legend>{resource.name}</legend>
                {resource.levels.map((p: Permission) => (
                  <label key={p} title={can(p) ? p : `This session lacks ${p}, so it cannot give it.`}>
                    <input
                      type="checkbox"
                      checked={chosen.includes(p) || included(p)}
                      disabled={!can(p) || included(p)}
                      onChange={(e) => toggle(p, e.currentTarget.checked)}
                    />
                    {levelOf(p)}
                  </label>
                ))}
              </fieldset>
            ))}
          </div>
        )}
        {!full && (
          <small class="muted">
            Write includes read.{" "}
            {permissions.length ? <code>{permissions.join(", ")}</code> : "Choose at least one, or full access."}
          </small>
        )}
        {permissionErrors.map((m) => (
          <small key={m} id="permissions-error" class="field-error">
            {m}
          </small>
        ))}
      </fieldset>
      <div class="row">
        <Field
          id="key-expiry"
          label="Expires"
          hint={limit === null ? undefined : `This session's key expires at ${limit}: a key it makes expires no later.`}
        >
          <select
            id="key-expiry"
            aria-describedby={limit === null ? undefined : "key-expiry-hint"}
            value={expiry}
            onChange={(e) => setExpiry(e.currentTarget.value as Expiry)}
          >
            {EXPIRIES.filter((x) => !outlives(x.value, limit)).map((x) => (
              <option key={x.value} value={x.value}>
                {x.value === "holder" ? `${x.label} (${new Date(limit!).toISOString()})` : x.label}
              </option>
            ))}
          </select>
        </Field>
        {expiry === "date" && (
          <Field
            id="key-expiry-date"
            label="Expiry date"
            hint={date ? `It stops working at ${date}T00:00:00.000Z.` : "It stops working as that day begins, UTC."}
            error={error}
            path="expires_at"
          >
            <input
              type="date"
              {...described("key-expiry-date", error, "expires_at", true)}
              value={date}
              required
              min={firstExpiryDay()}
              max={limit === null ? undefined : limit.slice(0, 10)}
              onInput={(e) => setDate(e.currentTarget.value)}
            />
          </Field>
        )}
      </div>
      {expiry !== "date" &&
        fieldMessages(error, "expires_at").map((m) => (
          <p key={m} class="field-error">
            Expires: {m}
          </p>
        ))}
      <ErrorNote error={isFieldError(error) ? null : error} />
      {isFieldError(error) && (
        <span class="visually-hidden" role="status">
          The service refused the key: see the fields.
        </span>
      )}
      <div class="actions">
        <button
          type="submit"
          disabled={name.trim() === "" || (!full && permissions.length === 0)}
          aria-disabled={busy || undefined}
        >
          {busy ? "Creating…" : "Create key"}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A validation error whose every detail has a field on this form, where it is shown instead. */
function isFieldError(error: unknown): boolean {
  const details = (error as { details?: { path: string }[] } | null)?.details ?? [];
  return details.length > 0 && details.every((d) => /^(name|permissions|expires_at)(\.|$)/.test(d.path));
}
