/** The keys a clickable mark answers. */
interface KeyEvent {
  key: string;
  preventDefault: () => void;
}

/**
 * Props that make an SVG mark (a row, a dot, an edge) a button you can reach with Tab and press
 * with Enter (and Space with `space`), calling `activate`; none when `activate` is undefined,
 * so the mark stays plain. Spread them where the view put its own (attribute order is part of
 * the golden files).
 */
export function clickable(
  activate: (() => void) | undefined,
  { space = false }: { space?: boolean } = {},
): {
  role?: 'button';
  tabIndex?: number;
  onClick?: () => void;
  onKeyDown?: (e: KeyEvent) => void;
} {
  if (!activate) return {};
  return {
    role: 'button',
    tabIndex: 0,
    onClick: activate,
    onKeyDown: (e) => {
      if (!space) {
        if (e.key === 'Enter') activate();
      } else if (e.key === 'Enter' || e.key === ' ') {
        // Space would scroll the page too.
        e.preventDefault();
        activate();
      }
    },
  };
}
