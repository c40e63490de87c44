/**
 * A schema's form, for a new schema and for changing one: its name and contract. The page checks
 * nothing the API checks: it only parses the condition's JSON to send it (a syntax error stays
 * here, at that field), and the API's VALIDATION_ERROR details appear at the fields they name.
 */
import { useState } from "preact/hooks";
import { described, Field } from "../../components/fields";
import { FormError, localErrors } from "../shared/form-error";
import type { Models } from "../../api";
import { exactNumber, parseExact } from "../../exact-json";
import { useCall } from "../../components/use-call";
import { readableJson } from "../../components/bidi";

type Schema = Models["Schema"];
type Contract = Models["Contract"];

/** What the form sends: the name (null for none) and the contract, as the API takes them. */
export interface SchemaInput {
  name: string | null;
  contract: Contract;
}

interface Values {
  name: string;
  price: string;
  activity_window: string;
  review_window: string;
  timeout_outcome: string;
  condition: string;
}

const EXAMPLE_CONDITION = '{ "event": "purchase", "field": "total", "gte": 100 }';

function valuesOf(schema: Schema | undefined): Values {
  if (!schema)
    return {
      name: "",
      price: "",
      activity_window: "",
      review_window: "",
      timeout_outcome: "fail",
      condition: EXAMPLE_CONDITION,
    };
  const c = schema.contract;
  return {
    name: schema.name ?? "",
    price: String(c.price),
    activity_window: String(c.activity_window),
    review_window: String(c.review_window),
    timeout_outcome: c.timeout_outcome,
    condition: readableJson(c.fulfillment_condition, 2),
  };
}

/** A number as typed (of up to 15 significant digits it round-trips exactly), or null when it is none. */
function numberTyped(text: string): number | null {
  const t = text.trim();
  return /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : null;
}

const P = {
  name: "name",
  price: "contract.price",
  activity: "contract.activity_window",
  review: "contract.review_window",
  timeout: "contract.timeout_outcome",
  condition: "contract.fulfillment_condition",
};

export function ContractForm({
  idPrefix,
  schema,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  idPrefix: string;
  schema?: Schema;
  submitLabel: string;
  onSubmit: (input: SchemaInput) => Promise<void>;
  onCancel?: () => void;
}) {
  const [values, setValues] = useState<Values>(() => valuesOf(schema));
  const { busy, error, setError, run } = useCall();
  const set = (key: keyof Values) => (e: { currentTarget: { value: string } }) =>
    setValues((v) => ({ ...v, [key]: e.currentTarget.value }));
  const id = (name: string) => `${idPrefix}-${name}`;

  const submit = async () => {
    // Every problem the form itself finds is said at once, each at its field.
    let condition: unknown;
    let notJson: string | null = null;
    try {
      condition = parseExact(values.condition);
    } catch (e) {
      notJson = `This is not valid JSON: ${e instanceof Error ? e.message : String(e)}`;
    }
    // What is not a number at all is said here, in a form's words; the API says what is wrong with a number.
    const numbers = {
      price: numberTyped(values.price),
      activity_window: numberTyped(values.activity_window),
      review_window: numberTyped(values.review_window),
    };
    const problems = [
      numbers.price === null && {
        path: P.price,
        message: "Enter an amount as a number, such as 49.5 (a dot for decimals, no currency).",
      },
      numbers.activity_window === null && {
        path: P.activity,
        message: "Enter seconds as a number, such as 86400 for a day.",
      },
      numbers.review_window === null && {
        path: P.review,
        message: "Enter seconds as a number, such as 3600 for an hour (0: none).",
      },
      notJson !== null && { path: P.condition, message: notJson },
    ].filter((d): d is { path: string; message: string } => d !== false);
    if (problems.length > 0) {
      setError(localErrors(problems));
      return;
    }
    const contract = {
      price: exactNumber(values.price.trim(), numbers.price!),
      activity_window: exactNumber(values.activity_window.trim(), numbers.activity_window!),
      review_window: exactNumber(values.review_window.trim(), numbers.review_window!),
      fulfillment_condition: condition,
      timeout_outcome: values.timeout_outcome,
    } as Contract; // the API says what is wrong with the rest
    await run(() => onSubmit({ name: values.name.trim() === "" ? null : values.name, contract }), { exclusive: true });
  };

  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <Field
        id={id("name")}
        label="Name (optional)"
        hint="Up to 100 characters, for people; candidates name the schema by its id."
        error={error}
        path={P.name}
      >
        <input {...described(id("name"), error, P.name, true)} value={values.name} onInput={set("name")} />
      </Field>
      <div class="row top">
        <Field
          id={id("price")}
          label="Price"
          hint="Owed when a candidate ends CONFIRMED: 0 to 10^12."
          error={error}
          path={P.price}
        >
          <input
            {...described(id("price"), error, P.price, true)}
            inputMode="decimal"
            value={values.price}
            onInput={set("price")}
          />
        </Field>
        <Field
          id={id("activity")}
          label="Activity window (seconds)"
          hint="More than 0; 86400 is a day."
          error={error}
          path={P.activity}
        >
          <input
            {...described(id("activity"), error, P.activity, true)}
            inputMode="decimal"
            value={values.activity_window}
            onInput={set("activity_window")}
          />
        </Field>
        <Field
          id={id("review")}
          label="Review window (seconds)"
          hint="0 or more; 0 ends at once."
          error={error}
          path={P.review}
        >
          <input
            {...described(id("review"), error, P.review, true)}
            inputMode="decimal"
            value={values.review_window}
            onInput={set("review_window")}
          />
        </Field>
        <Field id={id("timeout")} label="When the activity window ends unfulfilled" error={error} path={P.timeout}>
          <select
            {...described(id("timeout"), error, P.timeout)}
            value={values.timeout_outcome}
            onChange={set("timeout_outcome")}
          >
            <option value="fail">fail (becomes FAILED after review)</option>
            <option value="confirm">confirm (becomes CONFIRMED after review)</option>
          </select>
        </Field>
      </div>
      <Field
        id={id("condition")}
        label="Fulfillment condition (JSON)"
        hint='A leaf { "event", "field"?, "match"?, "gt"/"gte"/"lt"/"lte"/"eq"? }, or { "all": [...] } / { "any": [...] } of them.'
        error={error}
        path={P.condition}
      >
        <textarea
          {...described(id("condition"), error, P.condition, true)}
          value={values.condition}
          onInput={set("condition")}
          spellcheck={false}
          rows={6}
        />
      </Field>
      <FormError error={error} paths={Object.values(P)} />
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
