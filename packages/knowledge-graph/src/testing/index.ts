export {
  answerFor,
  scenarioAnswer,
  scenarioDeducedTriples,
  scenarioDomainKnowledge,
  scenarioRules,
  scenarioWeatherTool,
  scenarioWorld,
} from "./scenario.ts";
