export { answerFor, scenarioDeducedTriples, scenarioDomainKnowledge, scenarioRules, scenarioWeatherTool } from "./scenario.ts";
