// Views that compare hosts say so when the range has fewer than two: with one host (often
// `unknown`, when spans carry no host resource attribute) there is nothing to compare.

/** Resource attributes that name a host, in the order Tailscope reads them (HOST_KEYS). */
const HOST_ATTRIBUTES = 'host.name, k8s.node.name, host.id or service.instance.id';

/** The note for a host comparison over `hosts`, or null when there are at least two. */
export function singleHostNote(hosts: readonly string[]): string | null {
  if (hosts.length >= 2) return null;
  if (hosts.length === 0) return null;
  const only = hosts[0] ?? '';
  const why =
    only === 'unknown'
      ? `the spans carry no host resource attribute (${HOST_ATTRIBUTES}), so every call counts as host “unknown”`
      : `every call in this range was served by ${only}`;
  return `One host only: ${why}. Comparing hosts needs at least two; the Overview's slow episodes compare each service with its own history instead.`;
}
