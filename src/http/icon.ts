/** cronql's icon (a clock face), the favicon of the pages it serves: the dashboard and GraphiQL. */
export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="14" fill="#1f4e8c"/><path d="M16 7v9l6 4" stroke="#fff" stroke-width="3" fill="none" stroke-linecap="round"/></svg>`;
