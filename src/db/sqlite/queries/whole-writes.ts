import type { MessageRow } from '../../rows.ts';
import type { accountEventQueries, NewAccountEvent } from './account-events.ts';
import type { contactQueries } from './contacts.ts';
import type { MessageInsert, StatusEventInsert, StatusUpdate } from './message-writes.ts';
import type { messageQueries } from './messages.ts';

/** A send's whole write: the QUEUED message, its QUEUED event, its account event and its contact's conversation summary. */
export type SendWrite = {
  message: MessageInsert;
  /** The message's QUEUED event (its handle is the message's). */
  event: StatusEventInsert;
  accountEvent: NewAccountEvent;
  /** The end user's contact, whose summary moves to this message; none for a group send. */
  contact?: { id: string; previewText: string } | undefined;
};

/** One applied step of a status change: its event, the message's new status, its account event. */
export type StatusStepWrite = {
  messageId: number;
  update: StatusUpdate;
  event: StatusEventInsert;
  accountEvent: NewAccountEvent;
};

type Modules = {
  messages: ReturnType<typeof messageQueries>;
  accountEvents: ReturnType<typeof accountEventQueries>;
  contacts: ReturnType<typeof contactQueries>;
};

/**
 * The whole writes on SQLite: each part is its module's own prepared statement (a statement costs
 * microseconds here, so nothing is gained by merging them); the modules' methods are looked up at
 * each call, as the store's callers see them.
 */
export function wholeWriteQueries(modules: Modules) {
  return {
    send(write: SendWrite): MessageRow {
      const message = modules.messages.insert(write.message);
      modules.messages.insertStatusEvent(write.event);
      modules.accountEvents.append(write.accountEvent);
      if (write.contact) modules.contacts.recordMessage(write.contact.id, message.dateSent, write.contact.previewText, true);
      return message;
    },
    /** False, and nothing written, when a unique index says the step's event is already recorded. */
    statusStep(write: StatusStepWrite): boolean {
      if (!modules.messages.insertStatusEvent(write.event)) return false;
      modules.messages.updateStatus(write.messageId, write.update);
      modules.accountEvents.append(write.accountEvent);
      return true;
    },
  };
}
