import type { Child, FC } from 'hono/jsx';

export type Section = 'conversations' | 'deliveries';

export type LayoutProps = {
  title: string;
  /** Signed-in pages name the account and the section; the login page has neither. */
  signedIn?: { email: string; sandbox: boolean; section: Section | undefined };
  children?: Child;
};

const NAV: { section: Section; href: string; label: string }[] = [
  { section: 'conversations', href: '/inbox', label: 'Conversations' },
  { section: 'deliveries', href: '/inbox/deliveries', label: 'Webhooks' },
];

export const Layout: FC<LayoutProps> = ({ title, signedIn, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{`${title} · textrelay`}</title>
      <link rel="stylesheet" href="/inbox/assets/inbox.css" />
      {signedIn && <script src="/inbox/assets/inbox.js" defer></script>}
    </head>
    <body>
      <header class="top">
        <a class="brand" href="/inbox">
          text<b>relay</b>
        </a>
        {signedIn && (
          <>
            <nav>
              {NAV.map((item) => (
                <a href={item.href} aria-current={item.section === signedIn.section ? 'page' : undefined}>
                  {item.label}
                </a>
              ))}
            </nav>
            <div class="who">
              {signedIn.sandbox && <span class="tag">sandbox</span>}
              <span class="email">{signedIn.email}</span>
              <form method="post" action="/inbox/logout">
                <button class="link" type="submit">
                  Log out
                </button>
              </form>
            </div>
          </>
        )}
      </header>
      <main>{children}</main>
    </body>
  </html>
);
