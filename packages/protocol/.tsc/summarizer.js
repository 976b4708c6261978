export {};
//# sourceMappingURL=summarizer.js.map