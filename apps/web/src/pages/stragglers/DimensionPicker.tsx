import { useId, useState } from 'react';
import { attributeDimension, BASE_DIMENSIONS } from '../../model/stragglers';

/** Which dimensions to attribute by: the three conventions, plus attribute keys the user types. */
export function DimensionPicker({ by, setBy }: { by: string[]; setBy: (by: string[]) => void }) {
  const [draft, setDraft] = useState('');
  const id = useId();
  const attrs = by.filter((b) => b.startsWith('attr:'));
  const add = () => {
    const d = attributeDimension(draft);
    if (d !== null && !by.includes(d)) setBy([...by, d]);
    setDraft('');
  };
  return (
    <div className="attrs">
      <div className="field">
        <span>Attribute by</span>
        <div className="segmented" role="group" aria-label="Dimensions">
          {BASE_DIMENSIONS.map((d) => {
            const on = by.includes(d.key);
            return (
              <button
                key={d.key}
                type="button"
                aria-pressed={on}
                onClick={() => {
                  setBy(on ? by.filter((b) => b !== d.key) : [...by, d.key]);
                }}
              >
                {d.label}
              </button>
            );
          })}
        </div>
      </div>
      <form
        className="attrs"
        onSubmit={(e) => {
          e.preventDefault();
          add();
        }}
      >
        <label className="field" htmlFor={id}>
          <span>Any attribute key</span>
          <input
            id={id}
            type="text"
            placeholder="e.g. deploy.zone"
            value={draft}
            onChange={(e) => {
              setDraft(e.target.value);
            }}
          />
        </label>
        <button type="submit">Add</button>
      </form>
      {attrs.length > 0 && (
        <div className="chips">
          {attrs.map((a) => (
            <span className="chip" key={a}>
              {a.slice(5)}
              <button
                type="button"
                aria-label={`Remove ${a.slice(5)}`}
                onClick={() => {
                  setBy(by.filter((b) => b !== a));
                }}
              >
                ×
              </button>
            </span>
          ))}
        </div>
      )}
    </div>
  );
}
