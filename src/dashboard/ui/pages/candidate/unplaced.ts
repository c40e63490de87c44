/**
 * What of an error no field shows: a VALIDATION_ERROR's details go to the fields whose paths they
 * name, so only the rest (or any other error, whole) is left for an ErrorNote near the action.
 */
import { CandidateContractError } from "../../api";

export function unplaced(error: unknown, fieldPaths: string[]): unknown {
  if (!(error instanceof CandidateContractError) || error.code !== "VALIDATION_ERROR") return error;
  const held = (path: string) => fieldPaths.some((p) => path === p || path.startsWith(`${p}.`));
  const rest = error.details.filter((d) => !held(d.path));
  if (rest.length === 0) return null;
  return new CandidateContractError(
    error.code,
    rest.map((d) => `${d.path}: ${d.message}`).join(" "),
    error.status,
    rest,
    error.requestId,
  );
}
