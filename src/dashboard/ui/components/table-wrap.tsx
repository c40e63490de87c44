import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";

/**
 * A table's frame. Wider than its screen (a phone, a long value) it scrolls sideways: then, and
 * only then, it is a named region that takes the focus, for scrolling by keyboard (axe's rule
 * scrollable-region-focusable) without a tab stop or a landmark per table where nothing scrolls.
 * Its edges shade where more lies beyond them (style.css).
 */
export function TableWrap({ label, busy, children }: { label: string; busy?: boolean; children: ComponentChildren }) {
  const frame = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  useLayoutEffect(() => {
    const element = frame.current;
    if (!element) return;
    const measure = () => setScrolls(element.scrollWidth > element.clientWidth);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return (
    <div
      ref={frame}
      class="table-wrap"
      tabIndex={scrolls ? 0 : undefined}
      role={scrolls ? "region" : undefined}
      aria-label={scrolls ? label : undefined}
      aria-busy={busy}
    >
      {children}
    </div>
  );
}
