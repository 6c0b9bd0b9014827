import { escape, page } from './layout.js';

export function loginPage(options: { next: string | null; error: string | undefined }): string {
  const error = options.error ? `<p class="badge bad">${escape(options.error)}</p>` : '';
  const next = options.next
    ? `<input type="hidden" name="next" value="${escape(options.next)}">`
    : '';
  return page(
    'Sign in',
    `<div class="card" style="max-width:420px;margin:40px auto">
<h1>Sign in</h1>
<p class="muted">The local identity provider of this hub.</p>
${error}
<form method="post" action="/auth/login/local">
${next}
<p><label>User name<br><input type="text" name="username" autocomplete="username" required></label></p>
<p><label>E-mail<br><input type="email" name="email" autocomplete="email" required></label></p>
<p><button type="submit">Sign in</button></p>
</form>
</div>`,
  );
}

export function loginDonePage(username: string): string {
  return page(
    'Signed in',
    `<div class="card" style="max-width:420px;margin:40px auto"><h1>Signed in</h1><p>You are signed in as <strong>${escape(username)}</strong>. You may close this page.</p></div>`,
  );
}
