import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';

/**
 * Measures its own width and renders `children(width)`: layouts need a size in pixels, and
 * ResizeObserver keeps them right when the window or the panel changes.
 */
export function ChartBox({
  children,
  minWidth = 280,
}: {
  children: (width: number) => ReactNode;
  minWidth?: number;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setWidth(Math.floor(el.clientWidth));
    const ro = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width;
      if (w !== undefined) setWidth(Math.floor(w));
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
    };
  }, []);
  return (
    <div className="chart-box" ref={ref}>
      {width > 0 ? children(Math.max(minWidth, width)) : null}
    </div>
  );
}
