import { toIso } from './dates.ts';

/** The orders contacts.list accepts, as the SDK names them. */
export const CONTACT_V2_ORDER_FIELDS = ['created_at', 'updated_at', 'phone', 'first_name', 'last_name'] as const;
export type ContactV2OrderField = (typeof CONTACT_V2_ORDER_FIELDS)[number];

export type ContactV2Facts = {
  id: string;
  phone: string;
  firstName: string;
  lastName: string;
  companyName: string;
  assignedToEmail: string;
  tags: string[];
  customVariables: Record<string, string>;
  optedOut: boolean;
  createdAt: number;
};

/** The SDK's `Contact`: every field present; `sendblueNumber` is the line the person is pinned to ('' when none). */
export function toContactV2(contact: ContactV2Facts, sendblueNumber: string) {
  return {
    contact_id: contact.id,
    phone: contact.phone,
    first_name: contact.firstName,
    last_name: contact.lastName,
    company_name: contact.companyName,
    assigned_to_email: contact.assignedToEmail,
    sendblue_number: sendblueNumber,
    tags: contact.tags,
    custom_variables: contact.customVariables,
    opt_out: contact.optedOut,
    // textrelay does not verify contacts (contacts.verify is out of scope).
    verified: false,
    created_at: toIso(contact.createdAt),
  };
}

export type ContactV2View = ReturnType<typeof toContactV2>;
