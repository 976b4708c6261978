// Terminal-safe text lives in @spine/protocol (one function for every front end, STYLE rule 35).
export { type VisibleTextOptions, visibleJson, visibleText } from '@spine/protocol';
