import { escape, page } from './layout.js';

function hidden(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join('\n');
}

/** What a sign-in that ends in a program on this computer gives it, said before it is given. */
function programNotice(host: string): string {
  return `<p class="badge wait" role="note">Signing in gives the program listening at <code>${escape(host)}</code> on this computer access to your account. Go on only if you started a sign-in from a program here (such as <code>data login</code>).</p>`;
}

/** The development sign-in: it believes what it is told, and says so. */
export function loginPage(options: {
  fields: Record<string, string>;
  error: string | undefined;
  destination: string | undefined;
}): string {
  const error = options.error
    ? `<p class="badge bad" role="alert">${escape(options.error)}</p>`
    : '';
  const destination = options.destination ? programNotice(options.destination) : '';
  return page(
    'Sign in (development)',
    `<div class="card narrow">
<h1>Sign in</h1>
<p class="badge wait">Development sign-in</p>
<p class="muted">This hub runs for development: anyone who reaches it may sign in under any name. A hub for a team signs in through its identity providers.</p>
${error}
${destination}
<form method="post" action="/auth/login/local">
${hidden(options.fields)}
<p><label>User name<br><input type="text" name="username" autocomplete="username" required></label></p>
<p><label>E-mail<br><input type="email" name="email" autocomplete="email" required></label></p>
<p><button type="submit">Sign in</button></p>
</form>
</div>`,
  );
}

/**
 * Asks before a sign-in goes to a program on this computer when the user did not sign in on
 * a page that said so: a session of the hub or of the provider would otherwise answer a
 * crafted link on its own.
 */
export function continuePage(username: string, host: string, ticket: string, csrf: string): string {
  return page(
    'Continue signing in',
    `<div class="card narrow">
<h1>Continue signing in</h1>
<p>You are signed in as <strong>${escape(username)}</strong>. Continue only if you started a sign-in from a program on this computer (such as <code>data login</code>): it listens at <code>${escape(host)}</code> and will have access to your account.</p>
<form method="post" action="/auth/continue">
${hidden({ ticket, csrf })}
<p><button type="submit">Continue to ${escape(host)}</button></p>
</form>
</div>`,
  );
}

/** A way to sign in as the choice page names it: the development sign-in by that name. */
function providerLabel(provider: { name: string; development: boolean }): string {
  return provider.development ? 'Development sign-in' : `Sign in with ${provider.name}`;
}

export function signInChoicePage(
  providers: { name: string; url: string; development: boolean }[],
  destination: string | undefined,
): string {
  const list =
    providers.length === 0
      ? '<p class="muted">This hub has no sign-in provider configured.</p>'
      : `<ul class="providers">${providers.map((provider) => `<li><a class="button" href="${escape(provider.url)}">${escape(providerLabel(provider))}</a></li>`).join('')}</ul>`;
  const notice = destination ? programNotice(destination) : '';
  return page('Sign in', `<div class="card narrow"><h1>Sign in</h1>${notice}${list}</div>`);
}

export function signOutPage(csrf: string): string {
  return page(
    'Sign out',
    `<div class="card narrow"><h1>Sign out</h1><form method="post" action="/auth/logout">${hidden({ csrf })}<p><button type="submit">Sign out</button></p></form></div>`,
  );
}
