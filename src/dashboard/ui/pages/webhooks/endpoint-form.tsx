/**
 * A webhook endpoint's form, for a new endpoint and for changing one: its URL, description and
 * the notification types it takes. The API checks them; its messages appear at their fields.
 */
import { useState } from "preact/hooks";
import type { Models } from "../../api";
import { described, Field, fieldMessages } from "../../components/fields";
import { FormError } from "../shared/form-error";
import { useCall } from "../../components/use-call";

type Endpoint = Models["WebhookEndpoint"];
export type EventType = Endpoint["enabled_events"][number];
export const EVENT_TYPES: EventType[] = ["candidate.pending", "candidate.confirmed", "candidate.failed"];

export interface EndpointInput {
  url: string;
  description: string | null;
  enabled_events: EventType[];
}

export function EndpointForm({
  idPrefix,
  endpoint,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  idPrefix: string;
  endpoint?: Endpoint;
  submitLabel: string;
  onSubmit: (input: EndpointInput) => Promise<void>;
  onCancel?: () => void;
}) {
  const [url, setUrl] = useState(endpoint?.url ?? "");
  const [description, setDescription] = useState(endpoint?.description ?? "");
  const [events, setEvents] = useState<EventType[]>(endpoint?.enabled_events ?? EVENT_TYPES);
  const { busy, error, run } = useCall();
  const id = (name: string) => `${idPrefix}-${name}`;
  const eventErrors = fieldMessages(error, "enabled_events");

  const submit = () =>
    run(
      () =>
        onSubmit({
          url: url.trim(),
          description: description.trim() === "" ? null : description,
          // The types in the API's order, whatever order they were ticked in.
          enabled_events: EVENT_TYPES.filter((t) => events.includes(t)),
        }),
      { exclusive: true },
    );

  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <Field
        id={id("url")}
        label="URL"
        hint="https://, up to 2,048 characters. Locally, http://127.0.0.1 works too."
        error={error}
        path="url"
      >
        <input
          {...described(id("url"), error, "url", true)}
          type="url"
          inputMode="url"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
          spellcheck={false}
          autocomplete="off"
        />
      </Field>
      <Field id={id("description")} label="Description (optional)" error={error} path="description">
        <input
          {...described(id("description"), error, "description")}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </Field>
      <fieldset
        class={eventErrors.length ? "invalid" : undefined}
        aria-describedby={eventErrors.length ? id("events-error") : undefined}
      >
        <legend>Notification types it receives</legend>
        <div class="checks">
          {EVENT_TYPES.map((type) => (
            <label key={type}>
              <input
                type="checkbox"
                checked={events.includes(type)}
                onChange={(e) =>
                  setEvents((list) => (e.currentTarget.checked ? [...list, type] : list.filter((t) => t !== type)))
                }
              />
              <code>{type}</code>
            </label>
          ))}
        </div>
        {eventErrors.length > 0 && (
          <small id={id("events-error")} class="field-error block">
            {eventErrors.join(" ")}
          </small>
        )}
      </fieldset>
      <FormError error={error} paths={["url", "description", "enabled_events"]} />
      <div class="actions">
        <button type="submit" aria-disabled={busy || undefined}>
          {busy ? "Saving…" : submitLabel}
        </button>
        {onCancel && (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
