import { escape, page } from './layout.js';

function hidden(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join('\n');
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
  const destination = options.destination
    ? `<p>Signing in hands a token to the program listening at <code>${escape(options.destination)}</code> on this computer.</p>`
    : '';
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

/** Asks before a token goes to a program on this computer (the old clients' `jwt=` return). */
export function continuePage(username: string, host: string, ticket: string): string {
  return page(
    'Continue signing in',
    `<div class="card narrow">
<h1>Continue signing in</h1>
<p>You are signed in as <strong>${escape(username)}</strong>. Continue only if you started a sign-in from a program on this computer: it listens at <code>${escape(host)}</code> and will receive a token for your account.</p>
<form method="post" action="/auth/continue">
${hidden({ ticket })}
<p><button type="submit">Continue to ${escape(host)}</button></p>
</form>
</div>`,
  );
}

export function signInChoicePage(providers: { name: string; url: string }[]): string {
  const list =
    providers.length === 0
      ? '<p class="muted">This hub has no sign-in provider configured.</p>'
      : `<ul class="providers">${providers.map((provider) => `<li><a class="button" href="${escape(provider.url)}">Sign in with ${escape(provider.name)}</a></li>`).join('')}</ul>`;
  return page('Sign in', `<div class="card narrow"><h1>Sign in</h1>${list}</div>`);
}

export function signOutPage(csrf: string): string {
  return page(
    'Sign out',
    `<div class="card narrow"><h1>Sign out</h1><form method="post" action="/auth/logout">${hidden({ csrf })}<p><button type="submit">Sign out</button></p></form></div>`,
  );
}
