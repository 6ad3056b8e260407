/** The real networks textrelay can deliver through itself, each behind its own transport folder. */
export const CARRIERS = ['bluebubbles', 'twilio', 'smsgate'] as const;
export type CarrierName = (typeof CARRIERS)[number];

/** TEXTRELAY_TRANSPORT's values: the sandbox, the upstream relay, or a comma list of distinct carriers (the first is a new line's default). */
export type TransportMode = 'sandbox' | 'upstream' | `${CarrierName}` | `${CarrierName},${string}`;

/** TEXTRELAY_TRANSPORT as written, checked; undefined when it names no mode (a carrier unknown or listed twice). */
export function transportModeOf(value: string): TransportMode | undefined {
  if (value === 'sandbox' || value === 'upstream') return value;
  const names = value.split(',');
  const known = names.every(isCarrierName) && new Set(names).size === names.length;
  return known ? (value as TransportMode) : undefined;
}

/** What a line can be asked to do beyond sending one person a text. */
export type LineAbility = 'groups' | 'typing' | 'reactions' | 'media';

export type CarrierProfile = {
  /** How messages and error texts name it: `Twilio 30003: …`. */
  label: string;
  /** Lines one configured carrier may serve at most (a BlueBubbles server is one iMessage identity). */
  maxLines?: number;
  can: Record<LineAbility, boolean>;
};

export const CARRIER_PROFILES: Record<CarrierName, CarrierProfile> = {
  bluebubbles: { label: 'BlueBubbles', maxLines: 1, can: { groups: true, typing: true, reactions: true, media: true } },
  twilio: { label: 'Twilio', can: { groups: false, typing: false, reactions: false, media: true } },
  smsgate: { label: 'SMSGate', maxLines: 1, can: { groups: false, typing: false, reactions: false, media: false } },
};

/** The carriers a transport mode names, in order; none for the sandbox and the upstream relay. */
export function carriersOf(mode: TransportMode): CarrierName[] {
  if (mode === 'sandbox' || mode === 'upstream') return [];
  return mode.split(',') as CarrierName[];
}

export function isCarrierName(value: string): value is CarrierName {
  return (CARRIERS as readonly string[]).includes(value);
}

/** A carrier's failure as a message's error_message: its name and its own code, e.g. `Twilio 30003: Unreachable destination handset`. */
export function carrierFailureText(carrier: CarrierName, code: string | number, text: string): string {
  const said = text.trim();
  return said === '' ? `${CARRIER_PROFILES[carrier].label} ${code}` : `${CARRIER_PROFILES[carrier].label} ${code}: ${said}`;
}

/** Which of the three ways out a mode is: the sandbox, the upstream relay, or textrelay's own carriers. */
export type TransportKind = 'sandbox' | 'upstream' | 'carriers';

export function transportKindOf(mode: TransportMode): TransportKind {
  return mode === 'sandbox' || mode === 'upstream' ? mode : 'carriers';
}
