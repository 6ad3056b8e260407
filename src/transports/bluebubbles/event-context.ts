import type { ServiceDeps } from '../../services/deps.ts';
import type { ChatDirectory } from './chats.ts';
import type { BlueBubblesClient } from './client.ts';

/** The carrier's name, as events and recorded statuses give their source. */
export const SOURCE = 'bluebubbles';

/** What recording a BlueBubbles event needs: the services, the server, and the line. */
export type BbEventContext = {
  deps: ServiceDeps;
  client: BlueBubblesClient;
  chats: ChatDirectory;
  /** The line bound to BlueBubbles: every inbound message arrived on it. */
  line: () => Promise<string | undefined>;
  /** Where textrelay serves media (TEXTRELAY_PUBLIC_URL). */
  publicUrl: string;
  /** An error's text without secrets or the Mac's address, for a log line or a recorded problem. */
  describe: (error: unknown) => string;
};
