// Types of the two plugins used from @joplin/turndown-plugin-gfm (the package ships none). It is
// imported statically so the build can bundle it (see tsup.config.ts).
declare module '@joplin/turndown-plugin-gfm' {
  import type TurndownService from 'turndown';

  const gfm: {
    strikethrough: TurndownService.Plugin;
    taskListItems: TurndownService.Plugin;
  };
  export default gfm;
}
