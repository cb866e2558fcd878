/**
 * The page chunks, one function each, shared by the components that render them (React.lazy) and by preloadRoute
 * (src/engine/preload.ts): the browser keeps one module per chunk, so a chunk fetched ahead is the one rendered.
 */
export const loadPageView = () => import('./index');
// Charts carry @mui/x-charts: a chunk of their own, loaded by the first page that draws one.
export const loadChartSection = () => import('./ChartSection');
export const loadStreamSection = () => import('./StreamSection');
export const loadDocumentSection = () => import('./DocumentSection');
// markdown-it and the documents load only where a document is shown.
export const loadMarkdownSection = () => import('./MarkdownSection');
export const loadTimeGridSection = () => import('./TimeGridSection');
