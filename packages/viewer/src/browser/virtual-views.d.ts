/** Generated at build time: imports every `views/*.view.ts`, so each registers its view. */
declare module "virtual:views" {}
