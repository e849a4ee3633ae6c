import type { ReactNode } from 'react';

export function Panel({
  title,
  hint,
  right,
  children,
  id,
}: {
  title: string;
  hint?: ReactNode;
  right?: ReactNode;
  children: ReactNode;
  id?: string;
}) {
  return (
    <section className="panel" aria-labelledby={id} data-panel={id}>
      <div className="panel-head">
        <h2 id={id}>{title}</h2>
        {hint !== undefined && <span className="hint">{hint}</span>}
        {right !== undefined && <span className="right">{right}</span>}
      </div>
      {children}
    </section>
  );
}

export function Card({ label, value, sub }: { label: string; value: ReactNode; sub?: ReactNode }) {
  return (
    <div className="panel card">
      <div className="label">{label}</div>
      <div className="value">{value}</div>
      {sub !== undefined && <div className="sub">{sub}</div>}
    </div>
  );
}
