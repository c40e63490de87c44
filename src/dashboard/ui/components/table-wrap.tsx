import type { ComponentChildren } from "preact";

/**
 * A table's frame. Wider than its screen (a phone, a long value) it scrolls sideways, so it takes
 * the focus, named, for scrolling by keyboard (axe's rule scrollable-region-focusable).
 */
export function TableWrap({ label, busy, children }: { label: string; busy?: boolean; children: ComponentChildren }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label} aria-busy={busy}>
      {children}
    </div>
  );
}
