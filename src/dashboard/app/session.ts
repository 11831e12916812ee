/**
 * The dashboard's token. It arrives in the address's fragment (`/dashboard#token=…`, the link
 * cronql prints at startup), which browsers never send to a server; it is taken out of the
 * address bar at once (`history.replaceState`: no history entry keeps it) and kept in
 * `sessionStorage` (this tab only; a reload stays signed in). It is sent only in the
 * Authorization header and in graphql-ws's connectionParams.
 */
export const TOKEN_STORAGE_KEY = 'cronql:dashboard:token';

/** Reads `token=` from the fragment (removing it), else the stored token. */
export function takeToken(): string | null {
  let token: string | null = null;
  const hash = location.hash.replace(/^#/, '');
  const rest: string[] = [];
  let found = false;
  for (const part of hash ? hash.split('&') : []) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    if (key === 'token') {
      found = true;
      try {
        token = decodeURIComponent(eq < 0 ? '' : part.slice(eq + 1));
      } catch {
        token = null;
      }
    } else if (part) {
      rest.push(part);
    }
  }
  if (found) {
    history.replaceState(history.state, '', location.pathname + location.search + (rest.length ? `#${rest.join('&')}` : ''));
    storeToken(token);
  }
  return token || readStoredToken();
}

function readStoredToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_STORAGE_KEY);
  } catch {
    return null;
  }
}

/** Keeps (or, with null, forgets) the token for this tab. */
export function storeToken(token: string | null): void {
  try {
    if (token) sessionStorage.setItem(TOKEN_STORAGE_KEY, token);
    else sessionStorage.removeItem(TOKEN_STORAGE_KEY);
  } catch {
    // storage disabled: the token lives for this page view only
  }
}
